from visual_degrees.handlers.step_handler import step_handler

handler = step_handler("bridge_toward_target")
