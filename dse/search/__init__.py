"""Search: explore parallel plans, GPU counts and hardware knobs with the vectorized cost model."""
