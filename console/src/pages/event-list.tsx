/** The events so far; unknown types are shown by their own name with their data. */
import { describeEvent, type StreamEvent } from "../../../client/index.ts";

export function EventList({ events }: { events: StreamEvent[] }) {
  const stdout = events
    .filter((e) => e.type === "stdout" && typeof e.data === "string")
    .map((e) => e.data as string)
    .join("");
  return (
    <>
      {stdout && (
        <>
          <h3>Output stream (stdout)</h3>
          <pre class="stdout" tabIndex={0} aria-label="stdout">
            {stdout}
          </pre>
        </>
      )}
      <details open={events.length <= 30}>
        <summary>Events ({events.length})</summary>
        <ol class="events" aria-label="Events">
          {events.map((e) => (
            <li key={e.seq} data-type={e.type}>
              <span class="seq">{e.seq}</span> <strong>{describeEvent(e.type).label}</strong>{" "}
              <time dateTime={e.at}>{new Date(e.at).toLocaleTimeString()}</time>{" "}
              <code>{typeof e.data === "string" ? e.data.trimEnd() : JSON.stringify(e.data)}</code>
            </li>
          ))}
        </ol>
      </details>
    </>
  );
}
