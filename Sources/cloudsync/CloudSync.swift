import ArgumentParser

@main
struct CloudSync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cloudsync",
        abstract: "Turn an Apple Health export into clean, normalised HealthMetric data.",
        discussion: ExitStatus.helpText,
        version: "0.1.0",
        subcommands: [Convert.self, Inspect.self, Import.self, Status.self, Export.self, Aggregate.self, Upload.self, Serve.self, Pair.self]
    )
}
