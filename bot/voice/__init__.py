"""The game-master's voice: proposal extraction, the narrator, NPC memory and speech, scene summaries."""
