import { createProvider } from "../../sdk/provider.ts";
import { labTwinTools } from "./tools/index.ts";

/** A second lab provider (trust verified in the runtime's config) offering lab.route. */
export default createProvider("lab-twin", labTwinTools);
