public import ArgumentParser

/// `geo`: the LocationKit command-line tool, a thin layer over the libraries.
/// The `geo` executable's `main` is one call to ``Geo/main()``.
public struct Geo: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "geo",
        abstract: "LocationKit: positions, tracks, roads and maps from the command line.",
        subcommands: [
            Demo.self,
            DistanceCommand.self,
            SampleCityCommand.self,
            OSMCommand.self,
            GPXCommand.self,
            EvalCommand.self,
            NMEACommand.self,
            TrackCommand.self,
            SimulateCommand.self,
            ExtractCommand.self,
            RouteCommand.self,
        ]
    )

    public init() {}
}
