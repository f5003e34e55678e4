import { labRoute } from "../../../lab/src/tools/index.ts";

export const labBrokenTools = [labRoute("lab-broken")];
