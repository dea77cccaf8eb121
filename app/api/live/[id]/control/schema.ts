export { agentControlSchema as controlBodySchema } from "@/lib/agent/live-agents";
