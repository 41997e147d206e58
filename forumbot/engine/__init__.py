"""The engine: games loaded from their configs, posts read in time order with their deadlines, the
step written atomically and the outbox delivered; the live service and the replay on a virtual clock."""
