export { episodeParamsSchema } from "../schema";
