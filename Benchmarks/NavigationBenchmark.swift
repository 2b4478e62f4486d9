// Placeholder until this benchmark lands.
enum NavigationBenchmark {
    static func run(_ args: [String]) throws { print("not built yet") }
}
