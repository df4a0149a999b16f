"""tokenverify on Apache Spark: every row of a set of token files or a table piped through
`tokenverify verify` on the executors (spec §9). See Integrations/spark/README.md."""
