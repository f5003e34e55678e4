import { labRoute } from "../../../lab/src/tools/index.ts";

export const labTwinTools = [labRoute("lab-twin")];
