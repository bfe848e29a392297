"""Chain generation: walkers sample evidence chains, verbalize turns them into
questions, verify checks every hop, generate runs the rounds and writes back."""
