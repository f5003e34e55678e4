import { createProvider } from "../../sdk/provider.ts";
import { stdTools } from "./tools/index.ts";

export default createProvider("std", stdTools);
