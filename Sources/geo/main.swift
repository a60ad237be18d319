import GeoCLI

await Geo.runAsMain()
