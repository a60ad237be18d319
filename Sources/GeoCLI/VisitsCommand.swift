import ArgumentParser
import GPXCodec
import GeoCore
import Monitoring
import Positioning

/// `geo visits TRACK`: the visits (stays at one place) in a recorded GPX track.
struct VisitsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "visits",
        abstract: "List the visits (stays of minutes at one place) in a GPX track, one JSON line each.",
        discussion: """
            The track points of every track and segment, in file order, go through Monitoring's \
            online VisitDetector: a stay is a run of fixes within --radius metres of their mean \
            lasting at least --min-duration seconds, dated by its fixes within half that radius; \
            --departure-fixes fixes in a row outside it end it. Each line: latitude, longitude, horizontalAccuracy (RMS scatter of the \
            stay's fixes, m), arrivalDate and departureDate (ISO 8601, UTC). The points must \
            be in time order: at the first one earlier than the point before it, the visits so \
            far are printed and the command fails naming it (sort the track by time); points \
            without a time are skipped and counted on standard error, and a track without any \
            time fails. A stay under way at \
            the track's first point has "arrivalDate": null (not observed: CLVisit's \
            distantPast); one still under way at its last point is printed last with \
            "departureDate": null and "inProgress": true, and "lastFixDate".
            """
    )

    @OptionGroup var input: GPXInputOptions

    @Option(parsing: .unconditional, help: ArgumentHelp("How far from a stay's mean its fixes may lie (\(VisitDetector.Configuration.radii)).", valueName: "m"))
    var radius = 75.0

    @Option(parsing: .unconditional, help: ArgumentHelp("How long a stay must last to be a visit (\(VisitDetector.Configuration.minimumDurations)).", valueName: "s"))
    var minDuration = 300.0

    @Option(parsing: .unconditional, help: ArgumentHelp("Fixes in a row outside a stay that end it (\(VisitDetector.Configuration.departureFixCounts)).", valueName: "n"))
    var departureFixes = 2

    @Option(parsing: .unconditional, help: "Metres of error per unit of HDOP, used as accuracy (\(GPXAccuracyPolicy.ueres)); fixes above 100 m are skipped.")
    var uere = 5.0

    func validate() throws {
        try VisitDetector.Configuration.radii.check(radius, option: "--radius")
        try VisitDetector.Configuration.minimumDurations.check(minDuration, option: "--min-duration")
        try VisitDetector.Configuration.departureFixCounts.check(departureFixes, option: "--departure-fixes")
        try GPXAccuracyPolicy.ueres.check(uere, option: "--uere")
    }

    func run() throws {
        let detector = try VisitDetector(configuration: .init(
            radius: .meters(radius), minimumDuration: .seconds(minDuration), departureFixes: departureFixes))
        let (read, _) = try input.stream(json: true) { reader throws(GPXError) in
            let read = try TrackVisits.read(reader, detector: detector, accuracy: GPXAccuracyPolicy(uere: .meters(uere))) { visit in
                standardOutput.line(EventJSON.visit(visit, event: false))
            }
            return (read, read.points)
        }
        let (failure, note) = read.problems(file: input.file)
        if let failure { throw CommandLineFileError(failure, status: 65) }
        if let note { CommandLineFiles.note("visits", note) }
        if let line = read.currentVisitLine { standardOutput.line(line) }
    }
}
