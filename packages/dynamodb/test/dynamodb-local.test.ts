import { dynamoConformance } from './helpers/dynamodb';

dynamoConformance('local', 'client');
