/**
 * Component schemas of the error envelope every refusal and failure answers with; its codes
 * are the error table's (src/errors.ts).
 */
import { ERROR_TABLE } from "../errors.ts";
import { all, bool, freeObject, oneOfStrings, ref, str } from "./schema-builders.ts";

const ERROR_TYPES = ["request_error", "auth_error", "registry_error", "execution_error", "runtime_error"];

export const ErrorBody = all(
  {
    code: {
      type: "string",
      enum: Object.keys(ERROR_TABLE),
      description: "From the error table (README, src/errors.ts).",
    },
    message: str,
    type: oneOfStrings(ERROR_TYPES),
    retryable: {
      ...bool,
      description:
        "Whether sending the same request again may succeed and is safe. timeout and provider_crashed say true only for tools declared idempotent: the provider may have run (a timeout stops the waiting, not the provider's code), so a second call could repeat an effect; the runtime has already retried idempotent tools within the budget. tool_error carries what the tool said.",
    },
    details: {
      ...freeObject,
      properties: {
        tool_code: {
          ...str,
          description: "With tool_error: the tool's own error code, from its manifest's error_codes.",
        },
        ref: {
          ...str,
          description: "With provider_crashed and internal: a reference into the log, where the full text is.",
        },
      },
    },
  },
  ["details"],
);
export const ErrorEnvelope = all({ error: ref("ErrorBody") });
