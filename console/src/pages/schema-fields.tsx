/** The form generated from a tool's input schema (lib/schema-form.ts); it edits the JSON text. */
import { useState } from "preact/hooks";
import { fieldText, fieldValue, isInvalid, withField, type Field } from "../lib/schema-form.ts";

export function SchemaFields({
  fields,
  input,
  text,
  onText,
}: {
  fields: Field[];
  input: Record<string, unknown> | null;
  text: string;
  onText: (t: string) => void;
}) {
  const [invalid, setInvalid] = useState<Record<string, string>>({});
  const set = (field: Field, raw: string, checked?: boolean) => {
    const value = fieldValue(field, raw, checked);
    if (isInvalid(value)) {
      setInvalid({ ...invalid, [field.name]: value.invalid });
      return;
    }
    const { [field.name]: _gone, ...rest } = invalid;
    setInvalid(rest);
    onText(withField(text, field.name, value));
  };
  const disabled = input === null;
  return (
    <div class="schema-form">
      {disabled && <p class="muted">The JSON beside is not an object the form can show; fix it there.</p>}
      {fields.map((f) => {
        const id = `field-${f.name}`;
        const value = input?.[f.name];
        const help = [
          f.help,
          f.default !== undefined ? `default ${JSON.stringify(f.default)}` : "",
          f.min !== undefined || f.max !== undefined ? `from ${f.min ?? "−∞"} to ${f.max ?? "∞"}` : "",
        ]
          .filter(Boolean)
          .join(" · ");
        const describedBy =
          [help && `${id}-help`, invalid[f.name] && `${id}-error`].filter(Boolean).join(" ") || undefined;
        const common = {
          id,
          name: f.name,
          disabled,
          "aria-describedby": describedBy,
          "aria-invalid": invalid[f.name] ? true : undefined,
          required: f.required,
        };
        return (
          <div class="field" key={f.name}>
            <label for={id}>
              {f.label}
              {f.required && <span aria-hidden="true"> *</span>}
              {f.required && <span class="sr-only"> (required)</span>}
            </label>
            {f.kind === "boolean" ? (
              <input
                {...common}
                type="checkbox"
                checked={value === true}
                onChange={(e) => set(f, "", (e.target as HTMLInputElement).checked)}
              />
            ) : f.kind === "select" ? (
              <select
                {...common}
                value={fieldText(f, value)}
                onChange={(e) => set(f, (e.target as HTMLSelectElement).value)}
              >
                <option value="">{f.required ? "choose…" : "(not set)"}</option>
                {f.options!.map((o) => (
                  <option key={String(o)} value={String(o)}>
                    {String(o)}
                  </option>
                ))}
              </select>
            ) : f.kind === "list" ? (
              <textarea
                {...common}
                rows={3}
                value={fieldText(f, value)}
                onInput={(e) => set(f, (e.target as HTMLTextAreaElement).value)}
              />
            ) : f.kind === "text" ? (
              <input
                {...common}
                type="text"
                value={fieldText(f, value)}
                onInput={(e) => set(f, (e.target as HTMLInputElement).value)}
              />
            ) : (
              <input
                {...common}
                type="number"
                step={f.kind === "integer" ? 1 : "any"}
                min={f.min}
                max={f.max}
                value={fieldText(f, value)}
                onInput={(e) => set(f, (e.target as HTMLInputElement).value)}
              />
            )}
            {help && (
              <p id={`${id}-help`} class="muted">
                {f.kind === "list" ? "One per line. " : ""}
                {help}
              </p>
            )}
            {invalid[f.name] && (
              <p id={`${id}-error`} class="field-error">
                {invalid[f.name]}
              </p>
            )}
          </div>
        );
      })}
    </div>
  );
}
