"""Item files in and export files out: parsing and checking JSON Lines / CSV item files into
parsed records (:mod:`reviewer.io.itemfile`) and anchor labels on exported scores
(:mod:`reviewer.io.labels`). Below the services, beside the store: the store never reads a file,
it is handed parsed records."""
