// The page's theme (`theme.py`): marks the page (``html[data-rd-theme]``, which the dark
// styles and the tests read) and remembers the choice in this browser (a cookie the
// server reads on the next visit), so a screen set up once stays dark.
export default function (component) {
  const { data } = component;
  document.documentElement.dataset.rdTheme = data.theme;
  document.cookie = `${data.cookie}=${data.theme}; path=/; max-age=31536000; SameSite=Strict`;
}
