import GeoCLI

await Geo.main()
