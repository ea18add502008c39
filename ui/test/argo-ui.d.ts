// Argo CD's shared/models.ts takes four types from argo-ui, which is not on the npm
// registry: Kubernetes' type, list and object metadata as the API serves them, every field
// optional. Declared here so that test/contract.ts can type-check against Argo CD's models.
declare module 'argo-ui' {
  export namespace models {
    type Time = string;
    interface TypeMeta {
      kind?: string;
      apiVersion?: string;
    }
    interface ListMeta {
      continue?: string;
      resourceVersion?: string;
      selfLink?: string;
    }
    interface ObjectMeta {
      name?: string;
      generateName?: string;
      namespace?: string;
      uid?: string;
      resourceVersion?: string;
      generation?: number;
      creationTimestamp?: Time;
      deletionTimestamp?: Time;
      labels?: {[name: string]: string};
      annotations?: {[name: string]: string};
      ownerReferences?: any[];
      finalizers?: string[];
    }
  }
}
