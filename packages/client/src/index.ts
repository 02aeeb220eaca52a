/** `@irserve/client`: A typed client for irserve over HTTP and gRPC. */
export {};
