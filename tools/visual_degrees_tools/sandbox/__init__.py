"""The simulated photo web (docs/sandbox.md): a world, its photos, and sandbox providers for every port.

Usage::

    world = load_world(default_world_path())           # or any world file
    sandbox = build_sandbox(world, seed=0, faults=FaultConfig.parse("search_5xx=0.1"))
    sandbox.search / .fetcher / .recognizer / .planner / .clock   # the ports
    ground_truth(sandbox.web).truth(url), ….provable_graph()     # ground truth, benchmarks only
"""

from visual_degrees_tools.sandbox.assemble import Sandbox, build_sandbox
from visual_degrees_tools.sandbox.clock import EPOCH, LATENCIES, Latencies, VirtualClock
from visual_degrees_tools.sandbox.faults import FaultConfig, FaultInjector
from visual_degrees_tools.sandbox.ground_truth import GroundTruth, ground_truth
from visual_degrees_tools.sandbox.photoweb import PhotoWeb
from visual_degrees_tools.sandbox.synthetic import EXAMPLE_PAIR, FAR_PAIR, default_world_path
from visual_degrees_tools.sandbox.world import PersonRecord, World, load_world

__all__ = [
    "EPOCH",
    "EXAMPLE_PAIR",
    "FAR_PAIR",
    "LATENCIES",
    "FaultConfig",
    "FaultInjector",
    "GroundTruth",
    "Latencies",
    "PersonRecord",
    "PhotoWeb",
    "Sandbox",
    "VirtualClock",
    "World",
    "build_sandbox",
    "default_world_path",
    "ground_truth",
    "load_world",
]
