export { modelParamsSchema } from "../schema";
