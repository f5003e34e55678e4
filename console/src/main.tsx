/** The console's entry: mounts the app (Preact, built by vite from these sources). */
import { render } from "preact";
import { App } from "./app.tsx";
import "./styles.css";

render(<App />, document.getElementById("app")!);
