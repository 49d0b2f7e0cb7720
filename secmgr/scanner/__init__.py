"""Secret detection over git history: rules as data, a keyword prefilter, entropy, allowlists."""
