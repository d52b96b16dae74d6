"""What the table shows: casekeep and layout frames and the drivers that draw them."""
