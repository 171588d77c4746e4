"""Live providers: image search (Brave, Google), the SSRF-safe image fetcher, Rekognition, and the
planners (Gemini, Bedrock, any OpenAI-compatible server) answering both planner requests (plan,
connect); `providers.build_live_providers` composes them from Settings."""
