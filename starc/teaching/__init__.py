"""Teaching aids: what each backend decided for each DSL construct (``starc explain``)."""
