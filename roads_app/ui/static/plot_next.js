// The boards one key away (`plot_host.plot_next`), kept for `plot_host.js`.
export default function (component) {
  const { data } = component;
  (window.__rdNext || (window.__rdNext = {}))[data.name] = data;
  window.dispatchEvent(new Event('roads-next'));
}
