import { createProvider } from "../../sdk/provider.ts";
import { communityTools } from "./tools/index.ts";

export default createProvider("community", communityTools);
