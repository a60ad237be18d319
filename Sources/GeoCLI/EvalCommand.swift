import ArgumentParser
import Evaluation
import GeoBase

/// `geo eval`: evaluation harnesses.
struct EvalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Evaluation harnesses that measure LocationKit against the truth.",
        subcommands: [EvalFilters.self]
    )
}

/// `geo eval filters`: real clean tracks as truth, realistic GNSS error added with a fixed seed,
/// and every pipeline measured against the truth.
struct EvalFilters: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "filters",
        abstract: "Measure the track filters on real tracks with injected GNSS error.",
        discussion: """
            Truth: clean GPX tracks from the shared data (two walks, two drives), resampled to 1 Hz \
            with a 10-minute stop inserted halfway. Error (GNSSErrorModel): Gauss–Markov + white noise, \
            multipath bursts, a noisy warm-up with cached fixes, stale re-deliveries, swapped order, \
            drift while still. Rows: raw fixes, rules, rules + Kalman (as geo gpx clean), rules + RTS, \
            pykalman's RTS on the same input (when --reference holds its output), and a fixed-noise \
            filter in the style of HCKalmanFilter. Sparse cases (issue 12 §4): the walks sampled every \
            1, 5, 10 and 30 s with correlated noise and 2 % jumps of 60–200 m that claim 8 m \
            (GNSSErrorModel.sparseHike), no added stop (the walks keep their own), the fitness preset; clean is \
            geo gpx clean (batch: a delivery the next fix exposes as a jump is dropped, and so is a fix the smoother drops as an outlier). Wide hike set (issue 34 §2, --wide-seeds seeds): the walks every 1 s, 10 s and 5–60 s, with bursts of jumps, \
            jumps along the track, and noise of 2 and 10 m, through geo gpx clean --preset fitness and geo gpx smooth as run \
            on a file; mean and worst seed of RMSE × raw and length error (against the truth as the logger sampled it). \
            --export writes the RTS input as CSV for scripts/eval/pykalman_rts.py, and each wide run (truth and every \
            pipeline's output) as wide-<track>-<pattern>-<seed>.csv; scripts/eval/filters.sh runs the whole loop.
            """
    )

    @Option(help: "The shared data folder (default: LOCATIONKIT_DATA or ../shared/data).")
    var data: String?

    @Option(help: "First seed of the error model (0…2⁶⁴ − 1, with seed + seeds − 1 still in it).") var seed: UInt64 = 20_240_601

    @Option(parsing: .unconditional, help: "How many seeds (seed, seed + 1, …) to average over (\(FilterEvaluationSuite.seedCounts)).") var seeds = 5

    @Option(parsing: .unconditional, help: "How many seeds the wide hike set runs (\(FilterEvaluationSuite.seedCounts)).") var wideSeeds = 20

    @Option(help: "Which cases: all, realistic (1 Hz, every fault), sparse (hikes every 1, 5, 10, 30 s with jumps) or wide (issue 34's hike patterns).")
    var cases = FilterEvaluationSuite.Cases.all

    @Option(help: "Write each track's RTS input as <name>-<seed>.input.csv, and each wide run as wide-<track>-<pattern>-<seed>.csv, into this folder.")
    var export: String?

    @Option(help: "Read pykalman's <name>-<seed>.pykalman.csv from this folder and add its row.")
    var reference: String?

    func validate() throws {
        try FilterEvaluationSuite.seedCounts.check(seeds, option: "--seeds")
        try FilterEvaluationSuite.seedCounts.check(wideSeeds, option: "--wide-seeds")
        guard seed <= UInt64.max - UInt64(max(seeds, wideSeeds) - 1) else { throw ValidationError("--seed plus --seeds runs past 2⁶⁴ − 1") }
    }

    func run() throws {
        let suite = FilterEvaluationSuite(dataRoot: data ?? FilterEvaluationSuite.defaultDataRoot, firstSeed: seed, seeds: seeds, wideSeeds: wideSeeds, cases: cases,
                                          export: export, reference: reference)
        do { try suite.run { standardOutput.line($0) } } catch let error as EvaluationError {
            throw CommandLineFileError(error.message, status: error.code == .unreadable ? 66 : 65)
        }
    }
}

extension FilterEvaluationSuite.Cases: ExpressibleByArgument {}
