"""Memory networks: cues, edges and engrams per tenant; the algorithms live in memory.core."""
