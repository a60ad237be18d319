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
            MatchCommand.self,
            MagneticCommand.self,
            VisitsCommand.self,
            BeaconsCommand.self,
            MonitorCommand.self,
            MapCommand.self,
            SnapshotCommand.self,
            TilesCommand.self,
            StyleCommand.self,
            GlyphsCommand.self,
            SpritesCommand.self,
            ServeCommand.self,
            ServeTrackingCommand.self,
            LoadgenCommand.self,
        ]
    )

    public init() {}

    /// Parses the process arguments and runs the chosen subcommand: the `geo` executable's whole
    /// `main`. (Called from another module's top-level code, `Geo.main()` resolves to
    /// ArgumentParser's synchronous overload, which refuses async commands; this is the body of
    /// its async `main()`.)
    ///
    /// Results leave through `standardOutput`: written out after the command, also when it
    /// fails (the good part first, then the error), and a failed write ends the process there.
    /// A `CommandLineFileError` ends it with its one line, naming the command that ran, and
    /// its status: the one place a command's failure becomes a message and an exit status.
    ///
    /// On the main actor, so the top-level `await` never leaves the main thread: a synchronous
    /// command (`geo match`, `geo extract`, …) runs there, and the process starts no threads
    /// for it. A nonisolated `runAsMain` hopped to the global executor, and starting its pool
    /// (three threads and the main queue's, `dispatch_main`) cost ~0.8 ms of CPU a process
    /// (Linux, `perf stat`). An async command's `run()` is nonisolated and still runs on the
    /// global executor.
    @MainActor
    public static func runAsMain() async {
        StandardOutput.ignoreBrokenPipeSignal()
        // Ctrl-C or SIGTERM in the middle of a write leaves no temporary or scratch file behind.
        TemporaryFiles.removeOnTermination()
        var ran: any ParsableCommand.Type = Geo.self
        do {
            var command = try parseAsRoot()
            ran = type(of: command)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            standardOutput.flush()
        } catch {
            standardOutput.flush()
            standardOutput.exitQuietlyAfterBrokenPipe(error)
            guard let error = error as? CommandLineFileError else { exit(withError: error) }
            try? FileDescriptor.standardError.writeAll(error.line(command: name(of: ran)) + "\n")
            exit(withError: ExitCode(error.status))
        }
    }

    /// The words naming `command` under `geo` ("tiles build"): the command a
    /// `CommandLineFileError`'s line names unless it names another.
    static func name(of command: any ParsableCommand.Type) -> String {
        func path(under parent: any ParsableCommand.Type) -> [String]? {
            for child in parent.configuration.subcommands {
                if ObjectIdentifier(child) == ObjectIdentifier(command) { return [child._commandName] }
                if let rest = path(under: child) { return [child._commandName] + rest }
            }
            return nil
        }
        return path(under: Geo.self)?.joined(separator: " ") ?? _commandName
    }
}
