public import ArgumentParser
import SystemIO

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

    /// Parses the process arguments and runs the chosen subcommand: the `geo` executable's whole
    /// `main`. (Called from another module's top-level code, `Geo.main()` resolves to
    /// ArgumentParser's synchronous overload, which refuses async commands; this is the body of
    /// its async `main()`.)
    public static func runAsMain() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as CommandLineFileError {
            try? FileDescriptor.standardError.writeAll(error.description + "\n")
            exit(withError: ExitCode(error.status))
        } catch {
            exit(withError: error)
        }
    }
}
