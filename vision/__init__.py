"""Card readers: camera frame sources, card recognition, deck teaching, barcodes.

* :mod:`vision.frames`: the ``FrameSource`` seam (Pi camera, USB camera or video file,
  image folder, synthetic);
* :mod:`vision.synthetic`: a seeded synthetic dealing box for tests and benchmarks;
* :mod:`vision.geometry`: finding the card in a frame and flattening its corners;
* :mod:`vision.profile`: deck profiles taught from one picture per card;
* :mod:`vision.recognize`: reading a frame into a ``CardReading``;
* :mod:`vision.barcode`: the Code 128 card payload, sticker sheets, frame and serial
  scanner reading;
* :mod:`vision.commands`: the ``teach``, ``recognize`` and ``barcodes`` subcommands.

The reading filter that turns readings into accepted cards lives in the service room,
:mod:`table.service.reading_filter`.
"""
