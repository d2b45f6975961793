"""Teaching aids: every backend's code beside the DSL (``starc compare``) and what each backend decided for each construct (``starc explain``)."""
