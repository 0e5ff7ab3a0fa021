import Foundation
import Testing
@testable import MusicUnderstanding

/// The shared DSP units (`PeakPicking`, `Smoothing`, `FollowingLevel`, `MusicSpan`) on small curves with known answers.
@Suite struct DSPTests {
    /// Local maxima over a radius: a lower neighbour within the radius hides a peak, equal values
    /// keep the first, and zero or negative values are never peaks.
    @Test func localMaximaKeepTheFirstOfEqualPeaksWithinTheRadius() {
        let x: [Float] = [0, 3, 0, 2, 0, 0, 5, 5, 0, -1, 0, 1]
        #expect(PeakPicking.localMaxima(x, radius: 1) == [1, 3, 6, 11])
        #expect(PeakPicking.localMaxima(x, radius: 2) == [1, 6, 11])
        #expect(PeakPicking.localMaxima([0, 0, -2], radius: 1).isEmpty)
        #expect(PeakPicking.localMaxima([], radius: 3).isEmpty)
    }

    /// A following level keeps its fixed level for a loud master and before anything sounded,
    /// follows a quiet master's loudest level at its depth, stops at its lowest, and stays fixed
    /// with the depth 0.
    @Test func followingLevelFollowsOnlyQuietMasters() {
        let floor = FollowingLevel(fixed: -80, depth: 60, lowest: -160)
        #expect(floor.level(loudest: -.infinity) == -80)
        #expect(floor.level(loudest: -10) == -80)
        #expect(floor.level(loudest: -44) == -104)
        #expect(floor.level(loudest: -130) == -160)
        #expect(FollowingLevel(fixed: -80, depth: 0).level(loudest: -44) == -80)
        #expect(FollowingLevel(fixed: -60, depth: 40).level(loudest: -300) == -340)
    }

    /// The music span reads the loud level measured once with the onset features: the same span
    /// as from the levels alone, and it moves with the features' levels.
    @Test func musicSpanReadsTheOnsetFeaturesLoudLevel() {
        let rate = 100.0
        let levels = [Float](repeating: -240, count: 100) + [Float](repeating: -20, count: 300) + [Float](repeating: -240, count: 100)
        var onset = OnsetFeatures(frameRate: rate, strength: [Float](repeating: 0, count: levels.count), level: levels)
        #expect(onset.loudLevel == -20)
        let span = MusicSpan().span(onset, duration: 5)
        #expect(abs(span.start - 1) < 1e-9 && abs(span.end - 4) < 1e-9)
        #expect(span == MusicSpan().span(levels: levels, loud: OnsetFeatures.loudLevel(of: levels), frameRate: rate, duration: 5))
        onset.level = [Float](repeating: -30, count: levels.count)
        #expect(onset.loudLevel == -30)
        #expect(MusicSpan().span(onset, duration: 5) == (0, 5))
    }

    /// Three-point maxima: plateaus count unless `strict`; an end compares with its one neighbour.
    @Test func threePointMaxima() {
        let x = [1.0, 2, 2, 0, 4]
        #expect(PeakPicking.isLocalMaximum(x, at: 1))
        #expect(!PeakPicking.isLocalMaximum(x, at: 1, strict: true))
        #expect(!PeakPicking.isLocalMaximum(x, at: 0))
        #expect(PeakPicking.isLocalMaximum(x, at: 4))
        #expect(!PeakPicking.isLocalMaximum(x, at: 9))
    }

    /// The largest value near an index keeps the index on ties and stays inside the curve.
    @Test func largestNearAnIndex() {
        let x: [Float] = [1, 4, 2, 4, 9, 0]
        #expect(PeakPicking.largest(x, near: 2, radius: 1) == 1)
        #expect(PeakPicking.largest(x, near: 1, radius: 2) == 1)
        #expect(PeakPicking.largest(x, near: 2, radius: 2) == 4)
        #expect(PeakPicking.largest(x, near: 5, radius: 10) == 4)
        #expect(PeakPicking.largest(x, near: -3, radius: 1) == -3)
        #expect(PeakPicking.windowMaximum(x, around: 0, radius: 1) == 4)
        #expect(PeakPicking.windowMaximum([-1, -2], around: 0, radius: 1) == 0)
        #expect(PeakPicking.windowMaximum(x, around: 40, radius: 1) == 0)
    }

    /// Hill climbing reaches the peak of the hill it starts on, not the higher one beyond a valley.
    @Test func climbStaysOnItsHill() {
        let x = [0.0, 1, 3, 2, 1, 5, 8, 6]
        #expect(PeakPicking.climb(x, from: 3.4) == 2)
        #expect(PeakPicking.climb(x, from: 4.6) == 6)
        #expect(PeakPicking.climb(x, from: 7) == 7)
    }

    /// The parabola's vertex: exact for samples of a parabola, nil where it opens upward.
    @Test func parabolicOffsetFindsTheVertex() throws {
        // y = -(t - 0.3)^2 sampled at -1, 0, 1.
        let y = [-1.0, 0, 1].map { -($0 - 0.3) * ($0 - 0.3) }
        let d = try #require(PeakPicking.parabolicOffset(y[0], y[1], y[2]))
        #expect(abs(d - 0.3) < 1e-12)
        #expect(PeakPicking.parabolicOffset(Float(1), 0, 1) == nil)
        #expect(PeakPicking.parabolicOffset(1.0, 1, 1) == nil)
    }

    /// The adaptive threshold passes a peak that stands above its moving median and rejects one
    /// that does not (a ripple on a plateau).
    @Test func aboveMovingMedianRejectsRipples() {
        var x = [Float](repeating: 0.1, count: 40)
        x[10] = 1  // a clear peak
        for i in 25..<35 { x[i] = 0.6 }
        x[30] = 0.65  // a ripple on a plateau
        #expect(PeakPicking.aboveMovingMedian(x, medianWindow: 9, offset: 0.3) == [10])
        #expect(PeakPicking.aboveMovingMedian(x, medianWindow: 9, offset: 0) == [10, 30])
        #expect(PeakPicking.aboveMovingMedian([1, 2], medianWindow: 3, offset: 0).isEmpty)
    }

    /// Greedy suppression keeps the strongest of close peaks, the required ones and 0, honours
    /// the distance from both ends and stops at the count.
    @Test func strongestSeparatedSuppressesWeakerNeighbours() {
        var x = [Double](repeating: 0, count: 30)
        x[8] = 0.5
        x[10] = 0.9
        x[20] = 0.7
        x[28] = 1  // too close to the end
        #expect(PeakPicking.strongestSeparated(x, threshold: 0.1, minimumDistance: 4) == [0, 10, 20])
        #expect(PeakPicking.strongestSeparated(x, threshold: 0.1, minimumDistance: 4, required: [8]) == [0, 8, 20])
        #expect(PeakPicking.strongestSeparated(x, threshold: 0.8, minimumDistance: 4) == [0, 10])
        #expect(PeakPicking.strongestSeparated(x, threshold: 0.1, minimumDistance: 4, maximumCount: 2) == [0, 10])
        #expect(PeakPicking.strongestSeparated([], threshold: 0, minimumDistance: 1).isEmpty)
    }

    /// Reflection at both ends, as scipy's `mode="reflect"`.
    @Test func reflectMirrorsAtTheEnds() {
        #expect((-3...6).map { Smoothing.reflect($0, 4) } == [2, 1, 0, 0, 1, 2, 3, 3, 2, 1])
        #expect(Smoothing.reflect(5, 1) == 0)
    }

    /// The two medians: the upper middle value, and the midpoint of the two middle values.
    @Test func mediansOfEvenAndOddCounts() {
        #expect(Smoothing.median([4.0, 1, 3, 2]) == 3)
        #expect(Smoothing.midpointMedian([4.0, 1, 3, 2]) == 2.5)
        #expect(Smoothing.midpointMedian([5.0, 1, 3]) == 3)
        #expect(Smoothing.midpointMedian([]) == nil)
    }

    /// Pearson correlation over the shorter length, on arrays and on slices of one array alike.
    @Test func pearsonReadsTheSharedLengthOfArraysAndSlices() {
        let x: [Double] = [1, 2, 3, 4, 1, 2, 3, 4, 1]
        #expect(abs(Smoothing.pearson(x, x[4...]) - 1) < 1e-12)
        #expect(Smoothing.pearson(x, x[4...]) == Smoothing.pearson(x, Array(x[4...])))
        #expect(abs(Smoothing.pearson([1.0, 2, 3], [3.0, 2, 1, 9]) + 1) < 1e-12)
        #expect(Smoothing.pearson([1.0, 1, 1], [1.0, 2, 3]) == 0)
    }
}
