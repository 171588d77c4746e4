from visual_degrees.handlers.step_handler import step_handler

handler = step_handler("select_next_expansion")
