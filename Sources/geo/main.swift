import ArgumentParser
import GeoCLI

await Geo.main()
