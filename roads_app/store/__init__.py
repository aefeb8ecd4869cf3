"""Where shoes are kept: saved shoes, import and export files, the samples."""
