from visual_degrees.handlers.routes import route_handler

handler = route_handler("continueRun")
