export { agentControlSchema as controlBodySchema } from "@/lib/live/model-episodes";
