"""Building what the app loads: model export, presets and the hub, passage indexes, training."""
