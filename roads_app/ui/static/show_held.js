// The held reveal (`board_host.show_held_after`): the board's held marks and the held
// strip and statistics shown once the hand's last card has turned.
export default function (component) {
  const { data } = component;
  // Once shown, a round stays shown: the board can be drawn again (its first width
  // report, a rerun) after the reveal ended, and each drawing starts held again.
  // `data-rd-shown` keeps naming the last round shown until the new one is: the page
  // still holds the last round's strip and statistics for a moment, and they must stay
  // on their own round's numbers (held copies hold only while their round is not shown).
  const root = document.documentElement;
  const state = window.__roadsHeld || (window.__roadsHeld = {round: null, shown: false});
  if (state.round !== data.round) Object.assign(state, {round: data.round, shown: false});
  const reveal = (g) => {
    const m = g.layout && g.layout.meta;
    if (!(state.shown && m && m.held && m.rounds === state.round)) return;
    for (const el of g.querySelectorAll('.rd-trace[data-name^="new "]')) el.style.opacity = 1;
    for (const el of g.querySelectorAll('.rd-trace[data-name^="old "]')) el.style.opacity = 0;
    g.dataset.shownRound = String(state.round);
  };
  const apply = () => {
    for (const g of document.querySelectorAll('.rd-plot')) {
      if (!g.__roadsHeldHook) {  // redrawn later (`plot_host.js`): revealed again at once
        g.__roadsHeldHook = true;
        g.addEventListener('rd-drawn', () => reveal(g));
      }
      reveal(g);
    }
  };
  let loop = null, frame = null;
  const show = () => {
    state.shown = true;
    root.dataset.rdShown = String(data.round);  // the held strip and statistics swap (CSS)
    apply();
    loop = setInterval(apply, 150);
  };
  // The moment is the hand's last card turning face up, as the browser draws it (the
  // reveal is its own element, started when it arrived); the delay is only a fallback
  // for a hand that never shows.
  const t0 = performance.now();
  const wait = () => {
    const hand = document.querySelector(`[data-testid="reveal"][data-round="${data.round}"]`);
    const backs = hand ? Array.from(hand.querySelectorAll('.rv-back')) : [];
    const up = backs.length && backs.every(b => parseFloat(getComputedStyle(b).opacity) < 0.05);
    if (up || performance.now() - t0 > data.ms + 3000) show();
    else frame = requestAnimationFrame(wait);
  };
  if (state.shown) show(); else wait();
  return () => { cancelAnimationFrame(frame); clearInterval(loop); };
}
