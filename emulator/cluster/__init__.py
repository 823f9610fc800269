"""The cluster state model, its builder, its faults and its performance model."""
