import ArgumentParser

/// `geo`: the LocationKit command-line tool, a thin layer over the libraries.
@main
struct Geo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
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
}
