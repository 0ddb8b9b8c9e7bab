"""The embedded local stack: the application of ``template.yaml`` running on moto, in one process."""
