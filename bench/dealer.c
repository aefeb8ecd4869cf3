/* A plain C dealer of 8-deck shoes, for bench_engine_vs_c.py only: deal, count hands.
 *
 * The same shoes as roads-app's engine: NumPy's PCG64 raw stream (state and increment
 * given on the command line), Fisher-Yates from the top with j = raw % (i + 1), the first
 * card burns its value, the cut card `cut` cards from the end, one more hand after it.
 * The drawing tables and card values are not written here: bench_engine_vs_c.py writes
 * them from roads_app.game into tables.h before compiling. Single-threaded, -O2.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tables.h" /* POINTS[52], BURN[52], PLAYER_DRAWS[10][10], BANKER_STOOD[10][10],
                       BANKER_AFTER[10][10] */

typedef unsigned __int128 u128;
static u128 state, inc;
static const u128 MULT = ((u128)0x2360ED051FC65DA4ULL << 64) | 0x4385DF649FCCF645ULL;

static inline uint64_t next64(void) {
    state = state * MULT + inc;
    uint64_t hi = (uint64_t)(state >> 64), lo = (uint64_t)state;
    unsigned rot = (unsigned)(state >> 122);
    uint64_t x = hi ^ lo;
    return (x >> rot) | (x << ((-rot) & 63));
}

static u128 parse128(const char *s) {
    u128 v = 0;
    for (; *s; s++) v = v * 10 + (u128)(*s - '0');
    return v;
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: dealer STATE INC SHOES DECKS CUT\n");
        return 2;
    }
    state = parse128(argv[1]);
    inc = parse128(argv[2]);
    long shoes = atol(argv[3]);
    int decks = atoi(argv[4]), cut = atoi(argv[5]);
    int n = 52 * decks;
    int *order = malloc(sizeof(int) * n);
    long long hands = 0, banker_wins = 0;
    for (long s = 0; s < shoes; s++) {
        for (int i = 0; i < n; i++) order[i] = i % 52;
        for (int i = n - 1; i >= 1; i--) {
            int j = (int)(next64() % (uint64_t)(i + 1));
            int t = order[i]; order[i] = order[j]; order[j] = t;
        }
        int cursor = 1 + BURN[order[0]];
        int last = 0;
        while (!last) {
            if (n - cursor < 6) break;
            last = cursor >= n - cut;
            int p0 = order[cursor], b0 = order[cursor + 1];
            int p1 = order[cursor + 2], b1 = order[cursor + 3];
            cursor += 4;
            int player = (POINTS[p0] + POINTS[p1]) % 10;
            int banker = (POINTS[b0] + POINTS[b1]) % 10;
            int bdraw;
            int ptotal = player;
            if (PLAYER_DRAWS[player][banker]) {
                int third = POINTS[order[cursor++]];
                bdraw = BANKER_AFTER[banker][third];
                ptotal = (player + third) % 10;
            } else {
                bdraw = BANKER_STOOD[banker][player];
            }
            int btotal = banker;
            if (bdraw) btotal = (banker + POINTS[order[cursor++]]) % 10;
            hands++;
            banker_wins += btotal > ptotal;
        }
    }
    printf("%lld %lld\n", hands, banker_wins);
    free(order);
    return 0;
}
