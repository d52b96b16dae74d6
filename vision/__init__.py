"""Card readers: camera frame sources, card recognition, deck teaching, barcodes."""
