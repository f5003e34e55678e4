import { createProvider } from "../../sdk/provider.ts";
import { labTools } from "./tools/index.ts";

export default createProvider("lab", labTools);
