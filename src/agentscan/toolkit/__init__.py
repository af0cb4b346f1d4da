"""The provider toolkit: readers and helpers that only providers use."""
