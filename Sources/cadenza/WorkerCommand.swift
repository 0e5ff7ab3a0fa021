import Foundation
import MusicUnderstanding

/// The options of the hidden `cadenza worker`, declared once.
struct WorkerOptions: OptionGroup {
    let analyses = Option.analyses(help: "Analyses to run.")
    let addressSpace = Option<UInt64>(names: ["--address-space"], value: "bytes", help: "RLIMIT_AS of the worker.") { (text, name) throws(UsageError) in
        guard let n = UInt64(text), n > 0 else { throw UsageError(description: "invalid value '\(text)' for \(name)") }
        return n
    }
    let configuration = Option<AnalysisConfiguration>(names: ["--configuration"], value: "json", help: "Analysis settings as JSON.") {
        (text, name) throws(UsageError) in
        guard let c = AnalysisConfiguration(json: text) else { throw UsageError(description: "invalid value for \(name): not an analysis configuration") }
        return c
    }
}

/// `cadenza worker` (hidden): the worker process of `analyze`, speaking ``WorkerFrame``s on
/// stdin/stdout (``ReportWorker``). Not for people: `analyze` starts it.
enum WorkerCommand {
    static let spec = CommandSpec<WorkerOptions>(
        name: "worker", abstract: "Internal: a worker process of 'cadenza analyze'.",
        operands: "")

    static func run(_ arguments: [String]) -> Int32 {
        let args = Cadenza.parse(arguments, spec)
        return ReportWorker.serve(
            types: args[\.analyses] ?? AnalysisType.available,
            configuration: args[\.configuration] ?? AnalysisConfiguration(),
            addressSpaceLimit: args[\.addressSpace])
    }
}
