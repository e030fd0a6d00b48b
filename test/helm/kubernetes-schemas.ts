// Rendered manifests against the Kubernetes API's schemas (kubernetes-models) and the prometheus-operator CRDs
// (@kubernetes-models/prometheus-operator): types, required fields, formats and enumerations, as the API
// server would check them. Unknown fields pass: the published schemas leave objects open.

import {
  PrometheusRule,
  ServiceMonitor,
} from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1";
import { Deployment, StatefulSet } from "kubernetes-models/apps/v1";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2";
import { Ingress, NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { ConfigMap, Pod, Secret, Service, ServiceAccount } from "kubernetes-models/v1";

interface ModelClass {
  apiVersion: string;
  kind: string;
  new (data: any): { validate(): void };
}

const MODELS: ModelClass[] = [
  ConfigMap,
  Deployment,
  HorizontalPodAutoscaler,
  Ingress,
  NetworkPolicy,
  Pod,
  PodDisruptionBudget,
  PrometheusRule,
  Secret,
  Service,
  ServiceAccount,
  ServiceMonitor,
  StatefulSet,
];
const BY_TYPE = new Map(MODELS.map((model) => [`${model.apiVersion} ${model.kind}`, model]));

/**
 * What the schema of the manifest's kind refuses in it; "" when it accepts it. A kind with no schema here is
 * refused as well, so that a new template cannot go unchecked.
 */
export function schemaErrors(manifest: { apiVersion?: unknown; kind?: unknown }): string {
  const type = `${manifest.apiVersion} ${manifest.kind}`;
  const Model = BY_TYPE.get(type);
  if (!Model)
    return `no schema for ${type}: add its kubernetes-models class to test/helm/kubernetes-schemas.ts`;
  try {
    new Model(manifest).validate();
    return "";
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
