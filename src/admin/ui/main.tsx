// The dashboard's entry point, bundled by scripts/build-ui.mjs into /assets/app-[hash].js and .css.

import "uplot/dist/uPlot.min.css";
import "./styles/dashboard.css";
import { render } from "preact";
import { App } from "./app.js";

const root = document.getElementById("app");
if (root) {
  root.textContent = "";
  render(<App />, root);
}
