/** Every tool the community provider serves. */
import { textStats } from "./text-stats.ts";

export const communityTools = [textStats];
