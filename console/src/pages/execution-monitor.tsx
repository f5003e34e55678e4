/**
 * One execution, live: its status, the events as they arrive (the client resumes after a
 * dropped connection from the last event seen; the page says so), a progress bar from
 * `progress` events, partial output, then the result; and a Cancel button while it runs.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import {
  describeEvent,
  describeStatus,
  progressFraction,
  type ExecutionView,
  type StreamEvent,
} from "../../../client/index.ts";
import { useApp } from "../app-context.ts";
import { ApprovalControls } from "../components/approval-controls.tsx";
import { JsonBlock, StatusBadge } from "../components/bits.tsx";
import { Problem } from "../components/problem.tsx";
import { href } from "../router.ts";
import { EventList } from "./event-list.tsx";
import { Attempts, Capability, Timings } from "./execution-parts.tsx";

type Link =
  | { state: "connecting" | "live" | "ended" }
  | { state: "reconnecting"; attempt: number }
  | { state: "lost"; error: unknown };

export function ExecutionMonitor({
  id,
  events: given,
  drops,
}: {
  id: string;
  events?: AsyncGenerator<StreamEvent>;
  drops?: EventTarget;
}) {
  const { client, problem, approver } = useApp();
  const [view, setView] = useState<ExecutionView | null>(null);
  const [viewError, setViewError] = useState<unknown>(null);
  const [events, setEvents] = useState<StreamEvent[]>([]);
  const [link, setLink] = useState<Link>({ state: "connecting" });
  const [round, setRound] = useState(0);
  const [cancelling, setCancelling] = useState(false);
  const [cancelError, setCancelError] = useState<unknown>(null);
  const lastSeq = useRef(0);

  const refresh = () =>
    client.get(id).then(
      (v) => (setView(v), setViewError(null)),
      (err) => !problem(err) && setViewError(err),
    );

  useEffect(() => {
    void refresh();
  }, [id, client]);

  useEffect(() => {
    const abort = new AbortController();
    const onDrop = (info: { reconnect: number }) => setLink({ state: "reconnecting", attempt: info.reconnect });
    const fromPost = round === 0 && given !== undefined;
    const source = fromPost ? given : client.stream(id, { after: lastSeq.current, signal: abort.signal, onDrop });
    const relay = (e: Event) => onDrop((e as CustomEvent).detail);
    if (fromPost) drops?.addEventListener("drop", relay);
    setLink({ state: "connecting" });
    (async () => {
      try {
        for await (const event of source) {
          if (abort.signal.aborted) return;
          if (event.seq <= lastSeq.current) continue;
          lastSeq.current = event.seq;
          setLink({ state: "live" });
          setEvents((list) => [...list, event]);
          if (describeEvent(event.type).terminal) break;
          // A waiting call says on its stream when its place, its approval or its status moves
          // (a `log`, then `start`): the view is read again so the status and place shown follow.
          if (event.type === "start" || (event.type === "log" && isWaitingNews(event.data))) void refresh();
        }
        if (abort.signal.aborted) return;
        setLink({ state: "ended" });
        await refresh();
      } catch (err) {
        if (abort.signal.aborted) return;
        if (!problem(err)) setLink({ state: "lost", error: err });
      }
    })();
    return () => {
      abort.abort();
      drops?.removeEventListener("drop", relay);
      if (fromPost) void given!.return(undefined);
    };
  }, [id, client, round]);

  const cancel = async () => {
    setCancelling(true);
    setCancelError(null);
    try {
      setView(await client.cancel(id));
    } catch (err) {
      if (!problem(err)) setCancelError(err);
    } finally {
      setCancelling(false);
    }
  };

  const progress =
    [...events]
      .reverse()
      .map((e) => (e.type === "progress" ? progressFraction(e.data) : null))
      .find((f) => f !== null && f !== undefined) ?? null;
  const partial = [...events].reverse().find((e) => e.type === "partial")?.data ?? view?.partial_output;
  const status = view?.status ?? "running";
  const ended = describeStatus(status).terminal;
  return (
    <div class="monitor" aria-label={`Execution ${id}`}>
      <div class="row wrap">
        {view && (
          <p>
            <a href={href("tools", view.tool)}>{view.tool}</a>@{view.version}
          </p>
        )}
        <p>
          Status: <StatusBadge status={status} /> {view && <span class="muted">{describeStatus(status).meaning}</span>}
        </p>
        <button type="button" class="danger" onClick={cancel} disabled={ended || cancelling}>
          {cancelling ? "Cancelling…" : "Cancel"}
        </button>
      </div>
      <Problem error={viewError ?? cancelError} />
      {approver && status === "awaiting_approval" && view && (
        <ApprovalControls id={id} label={`${view.tool} (${id.slice(0, 18)}…)`} onDecided={setView} />
      )}
      <LinkState link={link} onRetry={() => setRound((r) => r + 1)} />
      {(progress !== null || !ended) && (
        <div class="field">
          <label for={`progress-${id}`}>Progress</label>
          <progress
            id={`progress-${id}`}
            max={100}
            value={progress === null ? undefined : Math.round(progress * 100)}
            data-percent={progress === null ? "" : Math.round(progress * 100)}
          />
          <span class="muted">
            {" "}
            {progress === null ? "no progress reported yet" : `${Math.round(progress * 100)}%`}
          </span>
        </div>
      )}
      {partial !== undefined && view?.output === undefined && (
        <>
          <h3>Partial output</h3>
          <JsonBlock value={partial} label="Partial output" />
        </>
      )}
      {view?.output !== undefined && (
        <>
          <h3>Output</h3>
          <JsonBlock value={view.output} label="Output" />
        </>
      )}
      {view?.error && (
        <>
          <h3>Error envelope</h3>
          <JsonBlock value={{ error: view.error }} label="Error envelope" />
        </>
      )}
      {view && (
        <>
          <Timings view={view} />
          <Attempts view={view} />
          <Capability view={view} />
        </>
      )}
      <EventList events={events} />
    </div>
  );
}

const isWaitingNews = (data: unknown) =>
  typeof data === "object" && data !== null && ("position" in data || "approval" in data || "waiting" in data);

function LinkState({ link, onRetry }: { link: Link; onRetry: () => void }) {
  const text: Record<Link["state"], string> = {
    connecting: "Connecting to the live events…",
    live: "Live: events appear as they happen.",
    ended: "The event stream has ended.",
    reconnecting: "The connection dropped; reconnecting and resuming after the last event…",
    lost: "The live events stopped.",
  };
  return (
    <div role="status" class={`link link-${link.state}`}>
      {text[link.state]}
      {link.state === "reconnecting" && ` (try ${link.attempt})`}
      {link.state === "lost" && (
        <>
          <Problem error={link.error} />
          <button type="button" onClick={onRetry}>
            Reconnect
          </button>{" "}
          <span class="muted">The execution itself goes on; reconnecting resumes after the last event shown.</span>
        </>
      )}
    </div>
  );
}
